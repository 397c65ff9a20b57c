class PasswordPolicy:
    def __init__(self, min_length=8):
        self.min_length = min_length

    def accepts(self, password):
        return len(password) >= self.min_length

def can_register(password):
    return PasswordPolicy().accepts(password)

if __name__ == "__main__":
    can_register("hunter22")
