def render_block(block):
    return "<div>" + render_children(block.get("children", [])) + "</div>"

def render_children(children):
    return "".join(render_block(child) for child in children)

if __name__ == "__main__":
    render_block({"children": [{"children": []}]})
