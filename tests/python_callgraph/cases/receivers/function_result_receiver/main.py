class BillingService:
    def run(self):
        return "billing run"

_service = None

def get_service():
    global _service
    if _service is None:
        _service = BillingService()
    return _service

def nightly():
    return get_service().run()

if __name__ == "__main__":
    nightly()
