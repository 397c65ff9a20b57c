from .products import find_product
