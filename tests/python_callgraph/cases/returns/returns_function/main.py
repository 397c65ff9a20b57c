def gzip_compress(data):
    return b"gz" + data

def choose_compressor():
    return gzip_compress

def pack(data):
    compress = choose_compressor()
    return compress(data)

if __name__ == "__main__":
    pack(b"abc")
