from typing import Optional

class AuditTrail:
    def record(self, action):
        return action

def delete_user(user_id, audit: Optional[AuditTrail] = None):
    if audit is not None:
        audit.record(f"delete {user_id}")
    return user_id

if __name__ == "__main__":
    delete_user(1, AuditTrail())
    delete_user(2)
