def greet(name, greeting):
    return f"{greeting}, {name}"

def main():
    make_greeter = lambda greeting: lambda name: greet(name, greeting)
    hello = make_greeter("Hello")
    return hello("ada")

if __name__ == "__main__":
    main()
