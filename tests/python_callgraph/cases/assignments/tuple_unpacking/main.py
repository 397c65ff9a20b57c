def encode(payload):
    return payload.encode()

def decode(raw):
    return raw.decode()

def roundtrip(text):
    pack, unpack = encode, decode
    return unpack(pack(text))

if __name__ == "__main__":
    roundtrip("hello")
