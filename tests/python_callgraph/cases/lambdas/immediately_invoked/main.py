def default_port():
    return 8080

def server_address(host):
    port = (lambda: default_port())()
    return f"{host}:{port}"

if __name__ == "__main__":
    server_address("localhost")
