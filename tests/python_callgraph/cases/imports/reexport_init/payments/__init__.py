from .gateway import Gateway
from .charges import charge_card
