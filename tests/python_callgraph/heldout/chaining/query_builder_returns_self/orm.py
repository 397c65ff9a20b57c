class Query:
    def __init__(self, rows):
        self.rows = rows
        self.filters = []
        self.ordering = None
        self.limit_to = None

    def filter(self, **conditions):
        self.filters.append(conditions)
        return self

    def order_by(self, field):
        self.ordering = field
        return self

    def limit(self, count):
        self.limit_to = count
        return self

    def _matches(self, row):
        return all(row.get(k) == v for f in self.filters for k, v in f.items())

    def all(self):
        rows = [row for row in self.rows if self._matches(row)]
        if self.ordering:
            rows.sort(key=lambda row: row[self.ordering])
        return rows[: self.limit_to]

    def first(self):
        rows = self.limit(1).all()
        return rows[0] if rows else None

    def count(self):
        return len(self.all())


class Table:
    def __init__(self, name, rows):
        self.name = name
        self.rows = rows

    def query(self):
        return Query(self.rows)
