def word_length(word):
    return len(word)

def sort_by(items, key):
    ranked = [(key(item), item) for item in items]
    ranked.sort()
    return [item for _, item in ranked]

def on_each(items, callback):
    for item in items:
        callback(item)

def main():
    words = sort_by(["pear", "fig"], key=lambda w: word_length(w))
    on_each(words, callback=lambda w: print(w))

if __name__ == "__main__":
    main()
