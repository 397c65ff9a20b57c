from plugins.legacy import *
from plugins.markdown import *


def parse(text):
    return text.splitlines()


def preview(text):
    return render(text)[:20]


def publish(text):
    return Extension("note").apply(render(text))


def lines(text):
    return parse(text)


if __name__ == "__main__":
    preview("a\n\nb")
    publish("a\n\nb")
    lines("x\ny")
    escape_all(["<b>"])
