from web import App

app = App()

def render(template, **context):
    return template.format(**context)

@app.route("/")
def index():
    return render("<h1>{title}</h1>", title="Home")

@app.route("/about")
def about():
    return render("<p>{text}</p>", text="About us")

if __name__ == "__main__":
    app.dispatch("/")
    app.dispatch("/about")
    app.dispatch("/missing")
