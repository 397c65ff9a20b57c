from abc import ABC, abstractmethod

USERS = [{"id": 1, "name": "ada", "active": True}, {"id": 2, "name": "bob", "active": False}]
ORDERS = [{"id": 10, "user": 1}, {"id": 11, "user": 1}]


class MultipleObjectMixin(ABC):
    paginate_by = 10

    @abstractmethod
    def get_queryset(self):
        """Subclasses say where the rows come from."""

    def paginate(self, rows):
        return rows[: self.paginate_by]

    def get_context(self):
        rows = self.filter_queryset(self.get_queryset())
        return {"rows": self.paginate(rows), "count": len(rows)}

    def filter_queryset(self, rows):
        return rows


class SingleObjectMixin(ABC):
    @abstractmethod
    def get_queryset(self):
        raise NotImplementedError

    def get_object(self, pk):
        for row in self.get_queryset():
            if row["id"] == pk:
                return row
        return None


class ActiveUsers(MultipleObjectMixin):
    paginate_by = 1

    def get_queryset(self):
        return list(USERS)

    def filter_queryset(self, rows):
        return [row for row in super().filter_queryset(rows) if row["active"]]


class OrderDetail(SingleObjectMixin, MultipleObjectMixin):
    def get_queryset(self):
        return list(ORDERS)


def render():
    users = ActiveUsers().get_context()
    detail = OrderDetail()
    return users, detail.get_object(11), detail.get_context()


if __name__ == "__main__":
    render()
