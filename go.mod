module github.com/ozdoctor/ozdoctor

go 1.26.8
