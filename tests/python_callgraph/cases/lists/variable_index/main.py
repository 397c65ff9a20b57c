def low_priority(task):
    return ("low", task)

def normal_priority(task):
    return ("normal", task)

def high_priority(task):
    return ("high", task)

QUEUES = [low_priority, normal_priority, high_priority]

def enqueue(task, level):
    return QUEUES[level](task)

if __name__ == "__main__":
    for level in range(3):
        enqueue("email", level)
