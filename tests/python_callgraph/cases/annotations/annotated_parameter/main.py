class TicketRepository:
    def save(self, ticket):
        return ("stored", ticket)

def open_ticket(repo: TicketRepository, title: str):
    return repo.save({"title": title})

if __name__ == "__main__":
    open_ticket(TicketRepository(), "printer on fire")
