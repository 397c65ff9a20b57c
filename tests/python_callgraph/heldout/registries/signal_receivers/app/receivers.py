from .models import Order, User
from .signals import post_save, pre_delete

outbox = []


@post_save.connect(sender=User)
def welcome_user(sender, instance, created, **kwargs):
    if created:
        outbox.append("welcome " + instance.email)


def audit(sender, **kwargs):
    outbox.append("audit " + sender.__name__)


post_save.connect(audit)
pre_delete.connect(audit, sender=Order)
