import local_disk
import cloud

def backup(path):
    local_disk.save(path)
    cloud.save(path)

if __name__ == "__main__":
    backup("notes.txt")
