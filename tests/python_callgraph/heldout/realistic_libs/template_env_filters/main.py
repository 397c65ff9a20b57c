from templating import Environment


def reverse_filter(value):
    return value[::-1]


def build_env():
    env = Environment()
    env.filters["reverse"] = reverse_filter
    env.filters["shout"] = lambda value: value.upper() + "!"
    return env


if __name__ == "__main__":
    env = build_env()
    env.from_string("title | upper").render(title="hello")
    env.from_string("names | join").render(names=["a", None])
    env.from_string("missing | default:none").render()
    env.from_string("word | reverse | shout").render(word="abc")
    try:
        env.from_string("word | nope").render(word="abc")
    except KeyError:
        pass
