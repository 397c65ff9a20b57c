def sort_by(items, key, reverse=False):
    decorated = [(key(item), index, item) for index, item in enumerate(items)]
    decorated.sort(reverse=reverse)
    return [item for _, _, item in decorated]


def group_by(items, key):
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def first(items, predicate=lambda item: True):
    for item in items:
        if predicate(item):
            return item
    return None
