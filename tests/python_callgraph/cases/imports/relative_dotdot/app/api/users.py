from .. import db
from ..db import query as run_query

def get_user(user_id):
    rows = run_query("select * from users where id = ?", user_id)
    return rows or db.query("select 1", user_id)
