from queue_app import Worker
from tasks import app, build_report


def schedule_nightly(owners):
    return [build_report.delay(owner) for owner in owners]


if __name__ == "__main__":
    schedule_nightly(["ops", "sales"])
    Worker(app).drain()
