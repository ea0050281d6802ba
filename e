/dev/fd/3: line 55: ./p: No such file or directory
