def cleanup(path):
    return "local cleanup of " + path

from fileops import *

def main():
    copy_file("a", "b")
    cleanup("b")

if __name__ == "__main__":
    main()
