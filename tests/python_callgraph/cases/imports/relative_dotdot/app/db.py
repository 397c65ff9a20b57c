def query(sql, *params):
    return [{"id": params[0]}]
