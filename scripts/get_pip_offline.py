"""Offline stand-in for the get-pip.py bootstrap script ansible-test downloads.

ansible-test runs this file with pip's arguments when it bootstraps a venv; its
download host is unreachable on the test machines.  We bootstrap pip from the
interpreter's own ensurepip, then let that pip install what was asked for.
ensurepip runs in a subprocess because it sets PIP_CONFIG_FILE=/dev/null in its
own process, which would hide the machine's pip configuration (certificates,
index) from the install step.
"""
import subprocess
import sys

DROPPED = {"--no-setuptools", "--no-wheel"}


def main():
    args = [a for a in sys.argv[1:] if a not in DROPPED]
    subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade"])
    subprocess.check_call([sys.executable, "-m", "pip", "install"] + args)


if __name__ == "__main__":
    main()
