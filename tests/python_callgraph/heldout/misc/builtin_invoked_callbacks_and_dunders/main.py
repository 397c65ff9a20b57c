def by_priority(task):
    return (-task.priority, task.name)


def is_open(task):
    return not task.done


def title_of(task):
    return task.name.title()


class Task:
    def __init__(self, name, priority=0, done=False):
        self.name = name
        self.priority = priority
        self.done = done

    def __eq__(self, other):
        return isinstance(other, Task) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __lt__(self, other):
        return by_priority(self) < by_priority(other)


class Board:
    def __init__(self, tasks):
        self.tasks = list(tasks)

    def __iter__(self):
        return iter(self.tasks)

    def __len__(self):
        return len(self.tasks)

    def __contains__(self, task):
        return any(task == own for own in self.tasks)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.tasks = [task for task in self.tasks if not task.done]


def apply_each(fn, items):
    return [fn(item) for item in items]


def plan(board):
    with board:
        ordered = sorted(board, key=by_priority)
        open_tasks = list(filter(is_open, ordered))
        titles = list(map(title_of, open_tasks))
        shouted = apply_each(title_of, ordered)
        smallest = min(board)
        return len(board), Task("a") in board, titles, shouted, smallest


if __name__ == "__main__":
    plan(Board([Task("a", 2), Task("b", 5, done=True), Task("c", 2)]))
