def titlecase(text):
    return " ".join(word.capitalize() for word in text.split())

def _slug(text):
    return text.replace(" ", "-")
