#!/bin/sh
# PreToolUse / BeforeTool hook of the example add-on "tidy": refuse a shell command that deletes
# the whole home or the root folder; let everything else through.
input=$(cat)
case "$input" in
  *"rm -rf /"\"*|*"rm -rf ~"*|*'rm -rf $HOME'*)
    echo "tidy: refusing to delete a whole home or root folder" >&2
    exit 2 ;;
esac
exit 0
