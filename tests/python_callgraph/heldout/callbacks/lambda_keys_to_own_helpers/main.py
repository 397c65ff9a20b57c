from collections_util import first, group_by, sort_by


def full_name(person):
    return person["first"] + " " + person["last"]


PEOPLE = [
    {"first": "Ada", "last": "Lovelace", "team": "math", "age": 36},
    {"first": "Alan", "last": "Turing", "team": "math", "age": 41},
    {"first": "Grace", "last": "Hopper", "team": "navy", "age": 85},
]


def report():
    by_age = sort_by(PEOPLE, lambda person: person["age"], reverse=True)
    by_name = sort_by(PEOPLE, lambda person: full_name(person).lower())
    teams = group_by(PEOPLE, key=lambda person: person["team"])
    oldest_math = first(by_age, lambda person: person["team"] == "math")
    anyone = first(by_name)
    return teams, oldest_math, anyone


if __name__ == "__main__":
    report()
