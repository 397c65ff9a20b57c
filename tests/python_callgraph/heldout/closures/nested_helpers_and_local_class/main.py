def tokenize(source):
    def is_name_char(char):
        return char.isalnum() or char == "_"

    def read_while(index, predicate):
        end = index
        while end < len(source) and predicate(source[end]):
            end += 1
        return source[index:end], end

    class Token:
        def __init__(self, kind, text):
            self.kind = kind
            self.text = text

        def __repr__(self):
            return f"{self.kind}:{self.text}"

    tokens = []
    index = 0
    while index < len(source):
        char = source[index]
        if char.isspace():
            index += 1
        elif char.isdigit():
            text, index = read_while(index, str.isdigit)
            tokens.append(Token("NUM", text))
        elif is_name_char(char):
            text, index = read_while(index, is_name_char)
            tokens.append(Token("NAME", text))
        else:
            tokens.append(Token("OP", char))
            index += 1
    return tokens


def evaluate(source, variables):
    def value_of(token):
        if token.kind == "NUM":
            return int(token.text)
        return lookup(token.text)

    def lookup(name):
        return variables[name]

    total, sign = 0, 1
    for token in tokenize(source):
        if token.kind == "OP":
            sign = -1 if token.text == "-" else 1
        else:
            total += sign * value_of(token)
    return total


if __name__ == "__main__":
    evaluate("price_1 + 10 - discount", {"price_1": 30, "discount": 5})
