from .sessions import Session


def get(url, **kwargs):
    with Session() as session:
        return session.get(url, **kwargs)
