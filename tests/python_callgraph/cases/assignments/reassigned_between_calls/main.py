def validate_email(value):
    return "@" in value

def validate_phone(value):
    return value.isdigit()

def check_contact(email, phone):
    check = validate_email
    ok = check(email)
    check = validate_phone
    return ok and check(phone)

if __name__ == "__main__":
    check_contact("a@b.c", "123")
