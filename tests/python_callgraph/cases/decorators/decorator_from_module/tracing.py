def record_span(name):
    return {"span": name}

def traced(func):
    def span_wrapper(*args):
        record_span(func.__name__)
        return func(*args)
    return span_wrapper
