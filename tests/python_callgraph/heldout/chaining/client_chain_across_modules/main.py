from sdk import get_client

if __name__ == "__main__":
    get_client().with_timeout(3).collection("users").document(42).fetch()
    get_client().collection("users").list()
    get_client().with_options(retries=2).collection("logs").document(1).delete()
