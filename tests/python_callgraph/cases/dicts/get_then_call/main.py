def render_html(doc):
    return "<p>" + doc + "</p>"

def render_markdown(doc):
    return "*" + doc + "*"

def render_plain(doc):
    return doc

RENDERERS = {"html": render_html, "md": render_markdown}

def render(doc, fmt):
    return RENDERERS.get(fmt, render_plain)(doc)

if __name__ == "__main__":
    render("hi", "html")
    render("hi", "md")
    render("hi", "txt")
