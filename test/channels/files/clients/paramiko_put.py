"""Upload one file with paramiko's default SFTPClient.put() (pipelined writes), as Ansible, Airflow and Fabric do.

Usage: paramiko_put.py PORT USER PASSWORD LOCAL REMOTE. The password comes from the environment variable
SFTP_PASSWORD when the argument is "-", so it is not shown in the process list. Exit 0 once put() returned.
"""
import os
import sys

import paramiko

port, user, password, local, remote = sys.argv[1:6]
if password == "-":
    password = os.environ["SFTP_PASSWORD"]
transport = paramiko.Transport(("127.0.0.1", int(port)))
try:
    transport.connect(username=user, password=password)
    sftp = paramiko.SFTPClient.from_transport(transport)
    attrs = sftp.put(local, remote)  # confirm=True: paramiko stats the file and compares the size
    print(attrs.st_size)
    sftp.close()
finally:
    transport.close()
