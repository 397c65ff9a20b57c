def on_complete(result):
    return f"done: {result}"

def run_job(job, callback):
    return callback(job * 2)

def schedule(job, callback):
    return run_job(job, callback)

def main():
    schedule(21, on_complete)

if __name__ == "__main__":
    main()
