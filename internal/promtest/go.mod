module github.com/artt-dev/artt/internal/promtest

go 1.26
