from ui.factories import factory_for


def render_login(kind):
    factory = factory_for(kind)
    return "\n".join(widget.render() for widget in factory.form(["user", "password"]))


if __name__ == "__main__":
    render_login("html")
    render_login("text")
