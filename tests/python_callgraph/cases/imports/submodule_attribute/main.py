import reports.monthly
from reports import yearly

def build_all():
    reports.monthly.build("2024-01")
    return yearly.build("2024")

if __name__ == "__main__":
    build_all()
