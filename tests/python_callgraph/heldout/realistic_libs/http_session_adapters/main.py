import httplib
from httplib.models import HTTPError


def fetch_all(urls):
    results = [httplib.get(url).raise_for_status().body for url in urls[:2]]
    session = httplib.Session()
    session.post("https://example.org/upload", headers={"X-Token": "t"})
    try:
        session.get(urls[2]).raise_for_status()
    except HTTPError as error:
        results.append(error.response.status)
    session.close()
    return results


if __name__ == "__main__":
    fetch_all(["https://example.org", "file:///etc/hosts", "file:///missing"])
