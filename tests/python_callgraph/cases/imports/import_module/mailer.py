def render(subject):
    return subject.upper()

def send(to, subject):
    return (to, render(subject))
