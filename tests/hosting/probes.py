"""Source shared by the hostile programs the sandbox tests run inside a sandbox."""

READ_OR_ERROR = '''
def read(path):
    try:
        with open(path, "rb") as file:
            return file.read().decode(errors="replace")
    except OSError as error:
        return type(error).__name__
'''
"""``read(path)``: a file's text, or the name of the error that refused it."""
