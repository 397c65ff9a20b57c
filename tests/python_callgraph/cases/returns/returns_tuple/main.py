def acquire_lock(name):
    return "lock " + name

def release_lock(name):
    return "unlock " + name

def lock_pair():
    return acquire_lock, release_lock

def critical_section(name):
    acquire, release = lock_pair()
    acquire(name)
    release(name)

if __name__ == "__main__":
    critical_section("jobs")
