def normalize_email(email):
    return email.strip().lower()

def dedupe_contacts(contacts):
    def key(contact):
        return normalize_email(contact["email"])

    seen = {}
    for contact in contacts:
        seen.setdefault(key(contact), contact)
    return list(seen.values())

if __name__ == "__main__":
    dedupe_contacts([{"email": "A@x.io"}, {"email": "a@x.io "}])
