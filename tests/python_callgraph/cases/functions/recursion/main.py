def flatten(tree):
    items = []
    for node in tree:
        if isinstance(node, list):
            items.extend(flatten(node))
        else:
            items.append(node)
    return items

if __name__ == "__main__":
    flatten([1, [2, [3]]])
