class EventBus:
    def __init__(self):
        self.subscribers = {}

    def subscribe(self, event, handler):
        self.subscribers.setdefault(event, []).append(handler)

    def publish(self, event, payload):
        for handler in self.subscribers.get(event, []):
            handler(payload)

class InventoryProjection:
    def __init__(self):
        self.stock = {}

    def on_order_placed(self, payload):
        self.stock[payload["sku"]] = self.stock.get(payload["sku"], 0) - 1

def send_confirmation(payload):
    return "confirm " + payload["sku"]

def wire():
    bus = EventBus()
    projection = InventoryProjection()
    bus.subscribe("order_placed", send_confirmation)
    bus.subscribe("order_placed", projection.on_order_placed)
    bus.publish("order_placed", {"sku": "A1"})

if __name__ == "__main__":
    wire()
