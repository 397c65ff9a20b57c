class EventLog:
    def append(self, event):
        return event

def replay(events, sink):
    for event in events:
        sink(event)

def main():
    log = EventLog()
    replay(["created", "paid"], log.append)

if __name__ == "__main__":
    main()
