def tokenize(source):
    def is_separator(char):
        return char in " ,;"

    def split_words():
        words, current = [], ""
        for char in source:
            if is_separator(char):
                words.append(current)
                current = ""
            else:
                current += char
        return words + [current]

    return split_words()

if __name__ == "__main__":
    tokenize("a,b c")
