from connections import connect

def run_query(sql):
    conn = connect("db.local")
    return conn.execute(sql)

if __name__ == "__main__":
    run_query("select 1")
