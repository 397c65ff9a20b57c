def compress(data):
    return data[:4]

def checksum(data):
    return sum(data.encode()) % 256

def pipeline(data):
    first, second = compress, checksum
    first, second = second, first
    return first(data), second(data)

if __name__ == "__main__":
    pipeline("payload")
