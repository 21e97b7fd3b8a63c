"""Log in over SFTP with paramiko, pausing between the steps of the login as a slow client or a person would.

Usage: paramiko_paused.py PORT USER PASSWORD PAUSE_SECONDS. Connects (SSH key exchange), pauses, authenticates
with the password, pauses, opens SFTP and lists the root, printing the names. Exit 0 once listed.
"""
import sys
import time

import paramiko

port, user, password, pause = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
transport = paramiko.Transport(("127.0.0.1", int(port)))
try:
    transport.start_client(timeout=60)
    time.sleep(pause)
    transport.auth_password(user, password)
    time.sleep(pause)
    sftp = paramiko.SFTPClient.from_transport(transport)
    print(" ".join(sorted(sftp.listdir("/"))))
    sftp.close()
finally:
    transport.close()
