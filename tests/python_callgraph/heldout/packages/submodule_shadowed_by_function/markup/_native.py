REPLACEMENTS = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def escape_text(text):
    return "".join(REPLACEMENTS.get(char, char) for char in text)
