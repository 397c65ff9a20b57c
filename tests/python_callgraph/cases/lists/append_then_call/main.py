def close_files():
    return "files closed"

def flush_cache():
    return "cache flushed"

def shutdown():
    hooks = []
    hooks.append(flush_cache)
    hooks.append(close_files)
    return [hook() for hook in hooks]

if __name__ == "__main__":
    shutdown()
