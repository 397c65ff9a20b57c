import markup
from markup.render import Markup

if __name__ == "__main__":
    page = markup.render("<p>{body}</p>", body="<script>")
    markup.render("<div>{inner}</div>", inner=page)
    markup.escape(Markup("<b>ok</b>"))
