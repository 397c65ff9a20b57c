def _slug(text):
    return text.replace(" ", "_")

from textutils import *

def main():
    title = titlecase("hello world")
    return _slug(title)

if __name__ == "__main__":
    main()
