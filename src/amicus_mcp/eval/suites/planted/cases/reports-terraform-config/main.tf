# Storage and database for the customer reports service (production).
# Reports contain customers' invoices. Customers can download any report from the
# last 13 months, through signed links that the reports API generates.

resource "aws_s3_bucket" "reports" {
  bucket = "acme-prod-customer-reports"
}

resource "aws_s3_bucket_acl" "reports" {
  bucket = aws_s3_bucket.reports.id
  acl    = "public-read"
}

resource "aws_s3_bucket_lifecycle_configuration" "reports" {
  bucket = aws_s3_bucket.reports.id

  rule {
    id     = "expire-old-reports"
    status = "Enabled"
    filter {}
    expiration {
      days = 7
    }
  }
}

resource "aws_security_group" "reports_db" {
  name   = "reports-db"
  vpc_id = var.vpc_id

  ingress {
    description = "Postgres"
    from_port   = 5432
    to_port     = 5432
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_db_instance" "reports" {
  identifier              = "reports-prod"
  engine                  = "postgres"
  engine_version          = "15.5"
  instance_class          = "db.r6g.large"
  allocated_storage       = 200
  username                = "reports_admin"
  manage_master_user_password = true
  vpc_security_group_ids  = [aws_security_group.reports_db.id]
  publicly_accessible     = true
  storage_encrypted       = false
  backup_retention_period = 0
  deletion_protection     = false
  skip_final_snapshot     = true
  multi_az                = false
}
